print("AutoCancel demo: coming soon")
