"""Providers and models: first run, the provider screens and form, the model picker, parameters, skills,
packaged tools and sign-in."""
