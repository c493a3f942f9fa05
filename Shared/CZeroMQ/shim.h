#include <zmq.h>
