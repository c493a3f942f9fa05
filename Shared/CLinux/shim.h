// Linux headers that Glibc's Swift module leaves out.
#include <sys/vfs.h>  // fstatfs, statfs: which file system a descriptor or path is on
