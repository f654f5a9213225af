/* The one parser of values as users write them, shared by profiles, workload
 * specs and the command line (parse.c; sizes and durations in size.c), so
 * that "Yes" means the same everywhere. */
#pragma once

#include "util/size.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* yes/no, true/false, on/off, 1/0, in any case. 0 or -EINVAL. */
int sb_parse_bool(const char *s, bool *out);
/* Decimal digits only (no sign, no blanks), min <= value <= max. 0, -EINVAL
 * for malformed text, -ERANGE when out of range or too large. */
int sb_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A count read as a double (JSON numbers from fio, bonnie++, our own files)
 * as an unsigned integer without undefined behaviour: NaN and negatives
 * give 0, values from 2^64 up give UINT64_MAX, the rest are truncated. */
uint64_t sb_u64_of_double(double d);

/* A queue/scheduler file: "none [mq-deadline] kyber" -> "mq-deadline"; one
 * word without brackets (a driver that offers no choice) is the one in
 * use; several words and none bracketed are malformed. cur gets the one in
 * use, names (when not NULL) the offered ones, blank-separated. 0, -EINVAL
 * or -ENOBUFS. */
int sb_scheduler_parse(const char *text, char *cur, size_t len, char *names, size_t nlen);

/* One line of a kernel's modules.dep ("kernel/block/bfq.ko.xz: dep..."):
 * does it name the I/O scheduler name's module, NAME.ko or
 * NAME-iosched.ko (what the kernel asks for when the name is written to a
 * queue/scheduler file), compressed or not? */
bool sb_modules_dep_has_iosched(const char *line, const char *name);

/* The unit serial number of a SCSI VPD page 0x80 as sysfs gives it
 * (device/vpd_pg80: 4 header bytes, then the serial in ASCII, padded with
 * blanks), without the padding. Disks whose `wwid` attribute cannot be read
 * (QEMU's, some USB bridges) still have it. 0; -EINVAL when it is not page
 * 0x80, its length runs past the data, a byte is not printable, or the serial
 * is empty; -ENOBUFS when out is too small. */
int sb_vpd80_serial(const unsigned char *buf, size_t len, char *out, size_t olen);
/* The same from the file at path (read here). 0 or -errno. */
int sb_vpd80_serial_file(const char *path, char *out, size_t olen);
