// The core lives here.
