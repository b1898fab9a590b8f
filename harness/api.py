"""The public API for plugin authors: everything a task, model, metric or builder plugin needs.

Built-in plugins import only from here (and from `metrics`), exactly as third-party plugins do.
"""

from harness.builder import Builder, DemoDataset
from harness.config.schema import GroupConfig, MetricConfig, TaskConfig
from harness.errors import ConfigError, DataError, HarnessError, UnknownNameError
from harness.frames.spec import FrameSpec
from harness.hookspecs import hookimpl
from harness.importers import ImportedRun, Importer, file_sha256
from harness.media import Segment, VideoRef, media_identity
from harness.model import Model, PartialGeneration
from harness.requests import (
    Capabilities,
    ImagePart,
    Message,
    Part,
    Request,
    Response,
    TaskInfo,
    TextPart,
    VideoPart,
)
from harness.task import DroppedRow, MediaPathError, Parsed, Task, read_jsonl_rows, safe_media_path


def registry(include_paths: tuple = ()):
    """The registry filled by every installed plugin: how builders and plugins reach registered models,
    builder parts, metrics or judges by name (`registry().get("model", name).load()`)."""
    from harness.plugins import load_plugins

    return load_plugins(include_paths).registry


__all__ = [
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
    "Parsed",
    "PartialGeneration",
    "Part",
    "Request",
    "Response",
    "Segment",
    "Task",
    "TaskConfig",
    "TaskInfo",
    "TextPart",
    "UnknownNameError",
    "VideoPart",
    "VideoRef",
    "file_sha256",
    "hookimpl",
    "media_identity",
    "read_jsonl_rows",
    "safe_media_path",
]
