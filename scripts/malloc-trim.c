/*
 * A Node-API module with one function, mallocTrim(): glibc's malloc_trim(0), which hands the free
 * pages inside the allocator's arenas back to the system. glibc returns memory on free() only from
 * the top of an arena, so after a surge the freed native memory of thousands of sockets and
 * buffers stays resident, fragmented below live allocations, until something trims it.
 *
 * The few Node-API declarations are written out here (the C ABI is stable), so the module builds
 * with a C compiler alone, without Node's headers.
 */
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>

typedef struct napi_env__ *napi_env;
typedef struct napi_value__ *napi_value;
typedef struct napi_callback_info__ *napi_callback_info;
typedef int napi_status;
typedef napi_value (*napi_callback)(napi_env env, napi_callback_info info);

extern napi_status napi_create_function(napi_env env, const char *name, size_t length, napi_callback cb, void *data, napi_value *result);
extern napi_status napi_set_named_property(napi_env env, napi_value object, const char *name, napi_value value);
extern napi_status napi_get_boolean(napi_env env, _Bool value, napi_value *result);

#define NAPI_OK 0
#define NAPI_AUTO_LENGTH SIZE_MAX

/* true when memory was returned to the system */
static napi_value malloc_trim_all(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result = NULL;
  napi_get_boolean(env, malloc_trim(0) == 1, &result);
  return result;
}

napi_value napi_register_module_v1(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "mallocTrim", NAPI_AUTO_LENGTH, malloc_trim_all, NULL, &fn) != NAPI_OK) return NULL;
  if (napi_set_named_property(env, exports, "mallocTrim", fn) != NAPI_OK) return NULL;
  return exports;
}
