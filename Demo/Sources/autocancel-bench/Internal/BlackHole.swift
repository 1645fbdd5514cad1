/// Keeps the optimizer from proving a value unused: an opaque call it cannot look into.
@inline(never)
@_optimize(none)
func blackHole<T>(_ value: T) {}
