import AutoCancel
import Testing

@Suite("The migration article's samples")
struct MigrationSamplesTests {
  #if canImport(ObjectiveC)
    @Test("AvatarLoader's request is cancelled when the loader is deallocated")
    func avatarLoaderCancelsOnDealloc() {
      let request = ImageRequest()
      var loader: AvatarLoader? = AvatarLoader()
      loader!.load(request)
      #expect(request.isStarted && request.cancelCount == 0)
      loader = nil
      #expect(request.cancelCount == 1)
    }
  #endif

  @Test("ImageRequest, the samples' request type, starts and cancels")
  func imageRequestStartsAndCancels() {
    let request = ImageRequest()
    let bag = CancelBag()
    request.start()
    bag.add(request)
    bag.cancelAll()
    #expect(request.isStarted && request.cancelCount == 1)
  }
}
