"""Plugin discovery: loading plugins (built-in, entry points, include paths), the registry they fill, hook
references in task configs, and which extra provides a missing module.

`harness.plugins.load_plugins` (and the other names of the former `harness/plugins.py`) keep working.
"""

from harness.moved import reexport_lazily

__getattr__ = reexport_lazily("harness.plugins", "harness.plugins.loading")
