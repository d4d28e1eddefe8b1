"""Class gallery: shared packs side by side."""
