/* version.h — the memgate version. */
#ifndef MG_VERSION_H
#define MG_VERSION_H
#define MG_VERSION "0.1.0"
#endif
