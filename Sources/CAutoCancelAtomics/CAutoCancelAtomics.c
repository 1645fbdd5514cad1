#include "CAutoCancelAtomics.h"

_Atomic(void *_Nullable) autocancel_instrument = NULL;
_Atomic(uintptr_t) autocancel_bags_made = 0;
_Atomic(uintptr_t) autocancel_type_answers[AUTOCANCEL_TYPE_ANSWERS];
