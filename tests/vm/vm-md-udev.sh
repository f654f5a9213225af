#!/bin/bash
# vm-seconds: 375 (usual guest time in make check, 2 cores, one guest CPU: contrib/vm/tier deals the scenarios to its guests by it)
# vm-md.sh's scenarios again, with the guest's udevd running: udev's md rules
# (mdadm --incremental on every device that shows an md superblock) race the
# tool's teardown, which must settle udev and stop what udev assembled again
# before it zeroes superblocks (once: "md127 : inactive loop0[0](S)" was left
# after a failure at step 5 of lvm-hwraid6 --loop).
# (No tests/lib.sh here: its private directory would outlive the exec.)
export SB_VM_UDEV=1
exec bash "$SB_TOP/tests/vm/vm-md.sh"
