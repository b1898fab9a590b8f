"""Task plugins: one folder per benchmark."""
