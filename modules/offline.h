/*
 * Air-gap bundles: what a cluster without internet access needs for its
 * deploy, in one .tar.gz (libarchive) with a checksum manifest, made on a
 * connected admin host and used by `deploy --from-bundle`.
 *
 * Layout, under the top directory bringup-offline/:
 *   SHA256SUMS          "HEX  PATH" for every other file (sha256sum -c reads it)
 *   manifest.json       cluster, and per host its distribution, kernel and OFED tarball
 *   ofed/NAME.tgz       one MLNX_OFED tarball per distribution and kernel in use
 *   peermem/nv_peer_memory.tar.gz  peer-memory (nv_peer_memory) sources, when given
 *   scale/              the extracted Spectrum Scale installer (gpfs_installer)
 *   selinux/infiniband.te  the SELinux module the selinux_ib stage builds
 *   manifests/...       every template and the built-in playbook
 *   images.txt          the container images of the rendered OpenShift objects
 *                       (`bringup render`), sorted, one a line; empty without
 *                       an openshift section
 */
#ifndef BRINGUP_OFFLINE_H
#define BRINGUP_OFFLINE_H

#include "../engine/base/err.h"
#include "../engine/inventory/inventory.h"
#include "../engine/base/strbuf.h"
#include "../engine/base/strlist.h"

struct offline_opts {
	const char *ofed_dir;    /* more MLNX_OFED tarballs to choose from; may be NULL */
	const char *peermem_dir; /* peer-memory sources; may be NULL */
};

/*
 * Writes the bundle `out` for every host of inv with InfiniBand HCAs. A
 * host's distribution is its os_release variable, else os_id + os_version_id
 * (rhel7.6: OFED's naming); its kernel the `kernel` variable. Tarballs come
 * from the hosts' ofed_tarball variables and opts->ofed_dir. Refused with
 * ERR_INVENTORY, naming the nodes, when a host's distribution or kernel is
 * unknown or no tarball is for it (its distro, and its kernel among
 * .supported_kernels when the tarball lists them). `report` gets one line
 * per thing packed.
 */
int offline_bundle_create(const struct inventory *inv, const struct offline_opts *opts,
			  const char *out, struct strbuf *report, struct err *err);

/*
 * Unpacks `bundle` into dir (created), checks every file against
 * SHA256SUMS (a file missing from it, or listed and absent, or different,
 * is ERR_PARSE naming it) and points the hosts of inv at what it holds:
 * ofed_tarball per host from manifest.json, gpfs_installer and
 * peermem_tarball (the peermem stage unpacks it where a host lacks the
 * sources) when present. Hosts the bundle does not know fail with
 * ERR_INVENTORY naming them.
 */
int offline_bundle_use(const char *bundle, const char *dir, struct inventory *inv,
		       struct strbuf *report, struct err *err);

/*
 * The container images (every "image" field) of the OpenShift objects
 * `bringup render` makes for inv, sorted and unique, appended to out.
 * Scale records not known yet are stood in for (no image depends on them).
 * Errors are kube_objects_build's (ERR_INVENTORY naming the var at fault).
 */
int offline_images(const struct inventory *inv, struct strlist *out, struct err *err);

/*
 * Parses SHA256SUMS text (untrusted: it comes from a file): lines of 64
 * hex digits, two spaces (or " *"), a relative path without "..". Calls
 * fn(path, hex, arg) for each; stops at fn's non-zero return. ERR_PARSE
 * names the line.
 */
int offline_sums_parse(const char *text, size_t len,
		       int (*fn)(const char *path, const char *hex, void *arg), void *arg,
		       struct err *err);

#endif
