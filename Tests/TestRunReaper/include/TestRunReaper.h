#ifndef OHK_TEST_RUN_REAPER_H
#define OHK_TEST_RUN_REAPER_H

#include <sys/types.h>

/// The process that ends what this test process started once it is gone (see TestRunReaper.c), or -1 when it could
/// not be started.
pid_t ohk_test_run_reaper(void);

#endif
