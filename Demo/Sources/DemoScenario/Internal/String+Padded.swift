extension String {
  /// The string padded with spaces on the right (or left, if `leading`) to `length`.
  func padded(to length: Int, leading: Bool = false) -> String {
    let pad = String(repeating: " ", count: Swift.max(0, length - count))
    return leading ? pad + self : self + pad
  }
}
