"""One module per stage; each defines ``register(app)``."""
