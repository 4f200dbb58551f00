#include "internal.h"

#include <stdlib.h>

/* Every allocation of the library goes through here, so a test build can make any chosen
 * allocation fail and check that the caller sees TG_ERR_NO_MEMORY and nothing else. */
void *tg__realloc(void *p, size_t size)
{
    if (size == 0) {
        free(p);
        return NULL;
    }
    return realloc(p, size);
}
