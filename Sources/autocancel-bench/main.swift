print("AutoCancel bench: coming soon")
