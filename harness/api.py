"""The public API for plugin authors: everything a task, model, metric or builder plugin needs.

Built-in plugins import only from here, the other public modules (`harness.hookspecs` for the cheap hook
marker, `harness.frames` for plugins that read or write video, `harness.report` for report sections) and
`metrics`, exactly as third-party plugins do; tests/test_core_public_api.py keeps them there.
"""

from harness.config.run import parse_kv
from harness.config.schema import GroupConfig, MetricConfig, TaskConfig
from harness.contract.builder import Builder, DemoDataset
from harness.contract.importer import ImportedRun, Importer, file_sha256
from harness.contract.messages import (
    Capabilities,
    ImagePart,
    Message,
    Part,
    Request,
    Response,
    TaskInfo,
    TextPart,
    VideoPart,
    label_text,
)
from harness.contract.model import Model, PartialGeneration, Result
from harness.data.archives import ArchiveError, archive_stem, is_archive, is_unpacked, unpack_archive
from harness.data.hub import checkpoint_kwargs
from harness.data.media import Segment, VideoRef
from harness.data.task import DroppedRow, MediaPathError, Parsed, Task, read_jsonl_rows, safe_media_path
from harness.errors import (
    ConfigError,
    DataError,
    HarnessError,
    ModelArgsError,
    ModelLoadError,
    UnknownNameError,
    UnsuitableModelError,
)
from harness.files import atomic_path, write_atomic
from harness.frames.content_hash import media_identity
from harness.frames.spec import FrameSpec
from harness.hookspecs import hookimpl
from harness.plugins.loading import load_plugins
from harness.results.reading import (
    ResultsFileError,
    SamplesFileError,
    iter_samples,
    read_results,
    read_samples,
    samples_file_of,
)


def registry(include_paths: tuple = ()):
    """The registry filled by every installed plugin: how builders and plugins reach registered models,
    builder parts, metrics or judges by name (`registry().get("model", name).load()`)."""
    return load_plugins(include_paths).registry


__all__ = [
    "ArchiveError",
    "Builder",
    "Capabilities",
    "ConfigError",
    "DataError",
    "DemoDataset",
    "DroppedRow",
    "FrameSpec",
    "GroupConfig",
    "HarnessError",
    "ImagePart",
    "ImportedRun",
    "Importer",
    "MediaPathError",
    "Message",
    "MetricConfig",
    "Model",
    "ModelArgsError",
    "ModelLoadError",
    "Parsed",
    "PartialGeneration",
    "Part",
    "Request",
    "Response",
    "Result",
    "ResultsFileError",
    "SamplesFileError",
    "Segment",
    "Task",
    "TaskConfig",
    "TaskInfo",
    "TextPart",
    "UnknownNameError",
    "UnsuitableModelError",
    "VideoPart",
    "VideoRef",
    "archive_stem",
    "atomic_path",
    "checkpoint_kwargs",
    "file_sha256",
    "hookimpl",
    "is_archive",
    "is_unpacked",
    "iter_samples",
    "label_text",
    "media_identity",
    "parse_kv",
    "read_jsonl_rows",
    "read_results",
    "read_samples",
    "safe_media_path",
    "samples_file_of",
    "unpack_archive",
    "write_atomic",
]
