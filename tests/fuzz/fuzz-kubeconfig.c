/*
 * libFuzzer target: kube_client_new (engine/kube/kube-client.c), the
 * kubeconfig loader: YAML, the current context, the cluster's server and
 * CA, the user's token or client certificate and key (base64 decoded).
 * Traps on a broken contract: a failure without a message, a client
 * without a server. See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>

#include "../../engine/kube/kube-client.h"
#include "fuzz-tmpdir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kube_client *kc = NULL;
	struct err e = ERR_INIT;

	if (kube_client_new(fuzz_file("kubeconfig", data, size), &kc, &e)) {
		if (!err_msg(&e)[0])
			__builtin_trap();
	} else if (!kube_client_server(kc) || !kube_client_user(kc)) {
		__builtin_trap();
	}
	kube_client_free(kc);
	err_clear(&e);
	return 0;
}
