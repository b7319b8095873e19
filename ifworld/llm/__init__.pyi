"""Type stub of the front door: the names listed here are what `ifworld.llm` exports (loaded lazily)."""

from .check_cli import cli_preflight as cli_preflight, model_cli as model_cli
from .client import (
    PARTIAL_INTERVAL_S as PARTIAL_INTERVAL_S,
    acomplete as acomplete,
    astructured as astructured,
    chat_model as chat_model,
    complete as complete,
    structured as structured,
)
from .connection import ConnectionReport as ConnectionReport, test_connection as test_connection
from .context import (
    DEFAULT_CONTEXT_TOKENS as DEFAULT_CONTEXT_TOKENS,
    ContextWindow as ContextWindow,
    TokenCounter as TokenCounter,
    context_window as context_window,
    token_counter as token_counter,
)
from .demo_cli import builtin_demo_url as builtin_demo_url, demo_server as demo_server
from .diagnose import (
    Failure as Failure,
    ModelUnreachable as ModelUnreachable,
    address as address,
    classify as classify,
    on_retry as on_retry,
    preflight as preflight,
)
from .help import NO_MODEL_HELP as NO_MODEL_HELP
from .methods import endpoint_key as endpoint_key, known_method as known_method
from .packing import (
    ContextTooSmall as ContextTooSmall,
    Joined as Joined,
    PackReport as PackReport,
    Part as Part,
    PartShare as PartShare,
    Section as Section,
    Slot as Slot,
    pack_messages as pack_messages,
    section as section,
)
from .reply import (
    KEPT_NOTE as KEPT_NOTE,
    LLMCallError as LLMCallError,
    LLMError as LLMError,
    LLMNotConfigured as LLMNotConfigured,
    ReplyFormatError as ReplyFormatError,
    StructuredOutputError as StructuredOutputError,
    TruncatedOutputError as TruncatedOutputError,
    extract_json as extract_json,
    strip_think as strip_think,
)
from .status import ConnectionStatus as ConnectionStatus, connection_status as connection_status
from .tracing import (
    project as project,
    set_tracing as set_tracing,
    tracing_active as tracing_active,
    tracing_env as tracing_env,
    tracing_requested as tracing_requested,
)
from .usage import (
    CallRecord as CallRecord,
    Usage as Usage,
    UsageTracker as UsageTracker,
    call_counts as call_counts,
    usage_totals as usage_totals,
)
