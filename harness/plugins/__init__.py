"""Plugin discovery: loading plugins (built-in, entry points, include paths), the registry they fill, hook
references in task configs, and which extra provides a missing module."""
