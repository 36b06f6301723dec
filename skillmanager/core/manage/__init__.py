"""Install, create, rename, move, remove and update skills: staged, previewed, audited, journalled."""
