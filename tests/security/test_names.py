"""Names that cannot impersonate (#40 item 4). Before: ``tеacher`` with one Cyrillic letter was accepted, a
Latin and a Cyrillic ``Anna`` got no "(2)", one Hangul filler was a (blank) name, full-width letters passed."""

from __future__ import annotations

import pytest

from ifworld.errors import WorkshopError
from ifworld.names import clean_display_name, name_key, skeleton
from ifworld.whatif.workshop_models import Participant, Workshop
from ifworld.whatif.workshop_names import clean_name

REFUSED = {
    "teacher, one Cyrillic е": "t\u0435acher",
    "Facilitator, Cyrillic а and і": "F\u0430c\u0456litator",
    "admin in Greek alpha": "\u0391dmin",
    "full-width FACILITATOR": "\uff26\uff21\uff23\uff29\uff2c\uff29\uff34\uff21\uff34\uff2f\uff32",
    "a reserved word then a tag": "Jud\u0261e accepted",
    "Cyrillic tag word": "Ada \u0430ccepted",
    "votes as a word": "Ada votes",
    "one Hangul filler": "\u3164",
    "Hangul fillers and spaces": "\u3164 \u115f \uffa0",
    "braille blank": "\u2800\u2800",
    "digits only": "40",
    "zero-width only": "\u200b\u200d",
    "a separator dot": "Ada \u00b7 accepted",
    "plus sign (full width)": "Ada \uff0b40",
    "an expert's name in Cyrillic": "\u0440hysics",
    "stacked marks": "Z\u0301\u0302\u0303\u0304",
}


@pytest.mark.parametrize("name", REFUSED.values(), ids=REFUSED.keys())
def test_impersonating_or_blank_names_are_refused(name: str) -> None:
    with pytest.raises(WorkshopError):
        clean_name(name)


@pytest.mark.parametrize("name, stored", [("Ada", "Ada"), ("\uff21\uff44\uff41", "Ada"), ("José", "José"),
                                          ("Nguyễn Văn An", "Nguyễn Văn An"), ("अनीता", "अनीता"),
                                          ("Team 3", "Team 3"), ("O'Brien-Smith", "O'Brien-Smith"),
                                          ("Ada\u3164", "Ada"), ("Анна", "Анна"), ("李明", "李明")])
def test_real_names_in_any_script_are_kept_in_normal_form(name: str, stored: str) -> None:
    assert clean_name(name) == stored


def test_twins_by_script_or_filler_get_a_number() -> None:
    people = [Participant(id="a", name="Anna", joined=1), Participant(id="b", name="\u0410nn\u0430", joined=2),
              Participant(id="c", name="\u0391nna", joined=3), Participant(id="d", name="ANNA", joined=4),
              Participant(id="e", name="Bob", joined=5)]
    names = Workshop(run_id="r", code="C", token="t", participants=people).display_names()
    assert names == {"a": "Anna", "b": "\u0410nn\u0430 (2)", "c": "\u0391nna (3)", "d": "ANNA (4)", "e": "Bob"}


def test_skeleton_comes_from_unicode_data_not_a_table_of_ours() -> None:
    assert skeleton("t\u0435acher") == skeleton("teacher")
    assert name_key("rn") == name_key("m")  # UTS #39's own example of a multi-character confusable
    assert clean_display_name("\uff21da", limit=40) == "Ada"
