/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer for netns-reap: values are written as they
 * come, commas placed by nesting level.  Keys are snake_case and stable.
 */
#ifndef NETNS_REAP_JSON_WRITER_H
#define NETNS_REAP_JSON_WRITER_H

#include <stdbool.h>
#include <stdio.h>

typedef struct json_writer json_writer_t;

json_writer_t *jsonw_new(FILE *f);
void jsonw_destroy(json_writer_t **self);

void jsonw_start_object(json_writer_t *self);
void jsonw_end_object(json_writer_t *self);
void jsonw_start_array(json_writer_t *self);
void jsonw_end_array(json_writer_t *self);
void jsonw_name(json_writer_t *self, const char *name);

void jsonw_string(json_writer_t *self, const char *value);
void jsonw_uint(json_writer_t *self, unsigned long long value);
void jsonw_int(json_writer_t *self, long long value);
void jsonw_float(json_writer_t *self, double value);
void jsonw_bool(json_writer_t *self, bool value);
void jsonw_null(json_writer_t *self);

/* NAME: VALUE inside an object; a NULL string is written as null. */
void jsonw_string_field(json_writer_t *self, const char *name, const char *value);
void jsonw_uint_field(json_writer_t *self, const char *name, unsigned long long value);
void jsonw_int_field(json_writer_t *self, const char *name, long long value);
void jsonw_float_field(json_writer_t *self, const char *name, double value);
void jsonw_bool_field(json_writer_t *self, const char *name, bool value);

#endif
