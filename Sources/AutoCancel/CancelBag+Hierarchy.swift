/// Child bags and linked bags: bags that end with other bags.
extension CancelBag {
  /// Makes a bag that ends when `parent` ends, and cancels its work when `parent` cancels all.
  ///
  /// For parts of a screen with lifecycles of their own (a tab, a cell, a sheet): the child
  /// can be cancelled or dropped on its own, and everything goes when the screen goes.
  ///
  /// - When the parent ends (or is deinitialized), the child ends with reason
  ///   ``CancellationReason/parentEnded``.
  /// - When the parent cancels all, the child cancels its work in flight with the same
  ///   reason, and stays usable.
  /// - The child cancelling or ending never touches the parent or its siblings.
  /// - The parent does not keep the child alive: a child that is deinitialized leaves its
  ///   parent at once, so a long-lived parent with many short-lived children stays small.
  /// - A child of a parent that has ended has ended too.
  ///
  /// ```swift
  /// let tabBag = CancelBag(parent: screen.cancelBag, label: "comments tab")
  /// tabBag.task { [weak self] in try await self?.loadComments() }
  /// // switching tabs:
  /// tabBag.cancelAll()
  /// ```
  public convenience init(parent: CancelBag, label: String? = nil) {
    self.init(label: label)
    BagLink.attach(core, to: parent.core, kind: .child)
  }

  /// Makes a bag that ends when any of `sources` ends: "cancel when either of these owners
  /// goes".
  ///
  /// Like `AbortSignal.any` and linked cancellation token sources. The linked bag ends with
  /// reason ``CancellationReason/linkEnded`` when the first source ends or is deinitialized;
  /// a source's `cancelAll` does not affect it. It retains none of its sources, nor their
  /// owners, and it leaves every source at once when it ends.
  ///
  /// ```swift
  /// // An upload that needs both the document and the session to stay open:
  /// let uploadBag = CancelBag(linkedTo: [document.cancelBag, session.cancelBag])
  /// uploadBag.task { try await upload(document.snapshot) }
  /// ```
  public convenience init(linkedTo sources: [CancelBag], label: String? = nil) {
    self.init(label: label)
    for source in sources {
      BagLink.attach(core, to: source.core, kind: .link)
    }
  }
}
