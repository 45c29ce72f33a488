import PrefsCore

// Placeholder entry point; the command is being written.
print("prefs: not yet available")
