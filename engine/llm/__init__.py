"""Language models from their config.json: the config reader, the closed-form formulas, presets."""
