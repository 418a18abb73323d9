// SPDX-License-Identifier: GPL-2.0
/*
 * netns-reap's JSON writer: one document per run on one stream.  Each
 * nesting level remembers whether it has a value yet, so a comma goes
 * before every value but the first; arrays of objects put one object per
 * line, arrays of scalars stay on one.  Strings are escaped as RFC 8259 asks (", \ and control bytes).
 */
#include <stdlib.h>

#include "json_writer.h"

#define JSONW_MAX_DEPTH 16

struct json_writer {
	FILE *out;
	unsigned int depth;
	bool has_value[JSONW_MAX_DEPTH];
	bool in_array[JSONW_MAX_DEPTH];
	bool has_block[JSONW_MAX_DEPTH];	/* an array holding objects */
	bool after_name;
};

json_writer_t *jsonw_new(FILE *f)
{
	json_writer_t *self = calloc(1, sizeof(*self));

	if (self)
		self->out = f;
	return self;
}

void jsonw_destroy(json_writer_t **self)
{
	if (!*self)
		return;
	if ((*self)->has_value[0])
		fputc('\n', (*self)->out);
	fflush((*self)->out);
	free(*self);
	*self = NULL;
}

/*
 * Before any value: its comma; an object or array in an array goes on a
 * line of its own, scalars stay on one line.
 */
static void jsonw_sep(json_writer_t *self, bool block)
{
	unsigned int d = self->depth;

	if (self->after_name) {
		self->after_name = false;
		return;
	}
	if (self->has_value[d])
		fputc(',', self->out);
	if (d && self->in_array[d] && block) {
		fputs("\n  ", self->out);
		self->has_block[d] = true;
	} else if (self->has_value[d]) {
		fputc(' ', self->out);
	}
	self->has_value[d] = true;
}

static void jsonw_escaped(json_writer_t *self, const char *s)
{
	fputc('"', self->out);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(self->out, "\\%c", c);
		else if (c < 0x20)
			fprintf(self->out, "\\u%04x", c);
		else
			fputc(c, self->out);
	}
	fputc('"', self->out);
}

static void jsonw_open(json_writer_t *self, char c, bool array)
{
	jsonw_sep(self, true);
	fputc(c, self->out);
	if (self->depth + 1 < JSONW_MAX_DEPTH)
		self->depth++;
	self->has_value[self->depth] = false;
	self->in_array[self->depth] = array;
	self->has_block[self->depth] = false;
}

static void jsonw_close(json_writer_t *self, char c)
{
	if (self->has_block[self->depth])
		fputc('\n', self->out);
	if (self->depth)
		self->depth--;
	fputc(c, self->out);
}

void jsonw_start_object(json_writer_t *self)
{
	jsonw_open(self, '{', false);
}

void jsonw_end_object(json_writer_t *self)
{
	jsonw_close(self, '}');
}

void jsonw_start_array(json_writer_t *self)
{
	jsonw_open(self, '[', true);
}

void jsonw_end_array(json_writer_t *self)
{
	jsonw_close(self, ']');
}

void jsonw_name(json_writer_t *self, const char *name)
{
	jsonw_sep(self, false);
	jsonw_escaped(self, name);
	fputs(": ", self->out);
	self->after_name = true;
}

void jsonw_string(json_writer_t *self, const char *value)
{
	jsonw_sep(self, false);
	if (value)
		jsonw_escaped(self, value);
	else
		fputs("null", self->out);
}

void jsonw_uint(json_writer_t *self, unsigned long long value)
{
	jsonw_sep(self, false);
	fprintf(self->out, "%llu", value);
}

void jsonw_int(json_writer_t *self, long long value)
{
	jsonw_sep(self, false);
	fprintf(self->out, "%lld", value);
}

void jsonw_float(json_writer_t *self, double value)
{
	jsonw_sep(self, false);
	fprintf(self->out, "%.3f", value);
}

void jsonw_bool(json_writer_t *self, bool value)
{
	jsonw_sep(self, false);
	fputs(value ? "true" : "false", self->out);
}

void jsonw_null(json_writer_t *self)
{
	jsonw_sep(self, false);
	fputs("null", self->out);
}

void jsonw_string_field(json_writer_t *self, const char *name, const char *value)
{
	jsonw_name(self, name);
	jsonw_string(self, value);
}

void jsonw_uint_field(json_writer_t *self, const char *name, unsigned long long value)
{
	jsonw_name(self, name);
	jsonw_uint(self, value);
}

void jsonw_int_field(json_writer_t *self, const char *name, long long value)
{
	jsonw_name(self, name);
	jsonw_int(self, value);
}

void jsonw_float_field(json_writer_t *self, const char *name, double value)
{
	jsonw_name(self, name);
	jsonw_float(self, value);
}

void jsonw_bool_field(json_writer_t *self, const char *name, bool value)
{
	jsonw_name(self, name);
	jsonw_bool(self, value);
}
