"""A test-only third-party-style plugin: registers a scripted suitability model, so the TempCloze builder's
`--suitability-model NAME` is tested through the registry as a user's installed plugin would be."""
