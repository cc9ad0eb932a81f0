"""The models estimators hold once started: learned arrays and the engine that learns them
(:mod:`onlinear.models.protocol`)."""
