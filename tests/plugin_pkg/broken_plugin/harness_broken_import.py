"""A plugin that fails at import (for the broken-plugin tests)."""

raise RuntimeError("this plugin is broken on purpose")
