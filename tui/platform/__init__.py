"""The one seam between Visindigo and Textual's (and Rich's) private names: version-checked shims, installed by
the app (`install(app)`), never at import. Nothing outside this package may name a private of either."""
