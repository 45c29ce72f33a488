/* CLibXML2 is a C target only so that its headers can be found without
 * pkg-config (which would link libxml2; see include/shim.h). This file
 * gives the target something to compile. */
#include "shim.h"
