"""Full-width pages of the main window: listing & expansion, conflicts, simulator."""
