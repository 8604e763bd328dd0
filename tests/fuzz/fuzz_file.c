/*
** fuzz_file.c -- the file reader on any input taken as a whole file:
** footer, schema, pages, levels, values, rows, and what the parquet table
** reads: bounds, page indexes, bloom filters, fields as cells (fuzz.h,
** fz_read_file; which of its four readings from the input's length).
*/
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *buf = malloc(size ? size : 1);
  if (!buf) return 0;
  memcpy(buf, data, size);
  fz_read_file(buf, size, (int)(size % 4));
  free(buf);
  return 0;
}
