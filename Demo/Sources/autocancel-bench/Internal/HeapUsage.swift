#if canImport(Glibc)
  import Glibc
#endif

/// Bytes currently allocated by `malloc` (all arenas, including `mmap`ed chunks), or nil
/// where the platform does not say.
///
/// Uses glibc's `mallinfo2()`: `uordblks` (in-use arena bytes) plus `hblkhd` (bytes in
/// `mmap`ed chunks, where large array buffers live). Swift's Glibc module does not import
/// `<malloc.h>`, so the function is looked up with `dlsym`. `struct mallinfo2` is ten
/// `size_t`s (80 bytes): the x86-64 System V ABI returns it through a hidden pointer passed
/// as the first argument, which is exactly a C function taking that pointer. Other
/// architectures (arm64 passes it in x8) report nil rather than guess.
func heapBytesInUse() -> Int? {
  #if canImport(Glibc) && arch(x86_64)
    typealias MallInfo2 = @convention(c) (UnsafeMutablePointer<Int>) -> UnsafeMutableRawPointer?
    guard let symbol = dlsym(nil, "mallinfo2") else { return nil }
    let mallinfo2 = unsafeBitCast(symbol, to: MallInfo2.self)
    var fields = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    return withUnsafeMutablePointer(to: &fields) { tuple in
      tuple.withMemoryRebound(to: Int.self, capacity: 10) { field in
        _ = mallinfo2(field)
        // arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, fordblks, keepcost
        return field[7] + field[4]
      }
    }
  #else
    return nil
  #endif
}
