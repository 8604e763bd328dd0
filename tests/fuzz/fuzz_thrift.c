/*
** fuzz_thrift.c -- the Thrift compact reader and the footer's parser: the
** input is a FileMetaData, wrapped as a file ("PAR1", the input, its
** length, "PAR1"), then read as fz_read_file reads files (which of its
** readings from the input's length).
*/
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > (1u << 24)) return 0;
  uint8_t *buf = malloc(size + 12);
  if (!buf) return 0;
  memcpy(buf, "PAR1", 4);
  memcpy(buf + 4, data, size);
  pq_store32(buf + 4 + size, (uint32_t)size);
  memcpy(buf + 8 + size, "PAR1", 4);
  fz_read_file(buf, size + 12, (int)(size % 3));
  free(buf);
  return 0;
}
