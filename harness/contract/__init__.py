"""The plugin contract: what a model adapter receives and returns, and the model, builder and importer bases.

Plugins reach these through `harness.api`; the modules here are where they are defined.
"""
