// The samples of the article "Migrating from the Objective-C Category" that use
// `AutoCancelObjC`, exactly as it shows them. They need the Objective-C runtime.

#if canImport(ObjectiveC)
  import AutoCancel
  import AutoCancelObjC
  import Foundation

  final class AvatarLoader: NSObject {
    func load(_ request: ImageRequest) {
      request.start()
      autoCancelRequestOnDealloc(request)
    }
  }
#endif
