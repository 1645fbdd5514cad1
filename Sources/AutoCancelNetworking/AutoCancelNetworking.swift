// AutoCancelNetworking binds URLSession work to a CancelBag. Importing it also imports the core.
@_exported import AutoCancel
