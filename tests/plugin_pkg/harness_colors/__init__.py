"""A third-party-style task plugin used by the core's tests: "what colour is the moving square?".

It is loaded exactly as an outside package would be: through an entry point of the group "harness"
(the tests write a dist-info folder for it) or with `--include_path .../harness_colors/tasks`.
"""
