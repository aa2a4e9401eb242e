// Empty: the target exists for its header (include/CEpoll.h).
#include "CEpoll.h"
