// bench-c-loop: the baseline `make bench` compares `cardline check` with. A plain C loop over
// the same records file: for each line, the number's digits (spaces and dashes skipped), the
// network by a prefix look-up, the length and the Luhn check. Prints how many records were
// valid by number. Usage: bench-c-loop [--linear-scan] TABLE FILE, where TABLE holds one pattern a line,
// longest first: "low high digits network-index allowed-lengths-bitmask luhn".
//
// The prefix look-up (changed 2026-11-28, issue 21 item 7): the patterns are painted once, at
// start, onto one sorted list of disjoint ranges of the longest pattern's width (longer
// patterns over shorter ones, as the longest match wins), and a number with at least that many
// digits is looked up with one binary search on its first digits. Before, each number scanned
// the table longest first, one pattern at a time: its cost grew with the rules (0.36 s a
// million records with 31 networks, 1.30 s with 59 and their 678 patterns), so the ratio of
// `check` to it measured the table's size rather than the checking. A binary search on painted
// ranges is what `check` itself does (`WholeNumberIndex`) and what a C programmer would write
// for a table of this size; the linear scan is kept only for numbers shorter than the longest
// pattern (none in the bench's records). Still one plain single-threaded loop over stdio.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pattern { uint64_t low, high; int digits, network; uint32_t lengths; int luhn; };
/// A range of prefixes of `width` digits, from `start` to the next range's start, and the
/// pattern that decides it (-1: none).
struct range { uint64_t start; int pattern; };

static const uint64_t powers[20] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
    1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
    100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
    1000000000000000000ULL, 10000000000000000000ULL };

static int compare(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    // --linear-scan: the loop as it was before the binary search (for the bench's row that
    // compares with the loop the targets were first set on).
    int linear = argc == 4 && strcmp(argv[1], "--linear-scan") == 0;
    if (linear) { argv++; argc--; }
    if (argc != 3) { fprintf(stderr, "usage: bench-c-loop [--linear-scan] TABLE FILE\n"); return 2; }
    FILE *table = fopen(argv[1], "r");
    if (!table) { perror(argv[1]); return 2; }
    static struct pattern patterns[4096];
    int count = 0, width = 0;
    unsigned long long low, high; int digits, network, luhn; unsigned lengths;
    while (count < 4096 && fscanf(table, "%llu %llu %d %d %u %d", &low, &high, &digits, &network, &lengths, &luhn) == 6) {
        if (digits < 1 || digits > 19) continue;
        patterns[count++] = (struct pattern){ low, high, digits, network, lengths, luhn };
        if (digits > width) width = digits;
    }
    fclose(table);

    // Paint: every pattern as a range of `width`-digit prefixes; the ranges' ends cut the line
    // into pieces, and the patterns are painted onto them from the last in the table to the
    // first (the longest first wins), each over the pieces it covers.
    static uint64_t cuts[2 * 4096 + 1];
    static int owners[2 * 4096 + 1];
    int cutCount = 0;
    cuts[cutCount++] = 0;
    for (int i = 0; i < count; i++) {
        uint64_t scale = powers[width - patterns[i].digits];
        cuts[cutCount++] = patterns[i].low * scale;
        cuts[cutCount++] = (patterns[i].high + 1) * scale;
    }
    qsort(cuts, cutCount, sizeof cuts[0], compare);
    int pieces = 0;
    for (int c = 0; c < cutCount; c++) {
        if (c == 0 || cuts[c] != cuts[c - 1]) { cuts[pieces] = cuts[c]; owners[pieces++] = -1; }
    }
    for (int i = count - 1; i >= 0; i--) {
        uint64_t scale = powers[width - patterns[i].digits], start = patterns[i].low * scale, end = (patterns[i].high + 1) * scale;
        int first = 0, last = pieces - 1;  // the piece that starts at `start`
        while (first < last) {
            int middle = (first + last + 1) / 2;
            if (cuts[middle] <= start) first = middle; else last = middle - 1;
        }
        for (int c = first; c < pieces && cuts[c] < end; c++) owners[c] = i;
    }
    static struct range ranges[2 * 4096 + 1];
    int rangeCount = 0;
    for (int c = 0; c < pieces; c++) {
        if (rangeCount > 0 && ranges[rangeCount - 1].pattern == owners[c]) continue;
        ranges[rangeCount++] = (struct range){ cuts[c], owners[c] };
    }

    FILE *input = fopen(argv[2], "r");
    if (!input) { perror(argv[2]); return 2; }
    static char buffer[1 << 16];
    setvbuf(input, NULL, _IOFBF, 1 << 20);
    long records = 0, valid = 0;
    uint8_t number[19];
    while (fgets(buffer, sizeof buffer, input)) {
        int n = 0;
        uint64_t value = 0;
        for (const char *p = buffer; *p && *p != ',' && *p != '\n'; p++) {
            if (*p >= '0' && *p <= '9') {
                if (n < 19) { number[n] = (uint8_t)(*p - '0'); value = value * 10 + number[n]; }
                n++;
            }
        }
        if (n == 0) continue;
        records++;
        int shown = n < 19 ? n : 19;
        const struct pattern *found = NULL;
        if (!linear && width > 0 && shown >= width) {
            // The last range starting at or before the number's first `width` digits.
            uint64_t prefix = value / powers[shown - width];
            int first = 0, last = rangeCount - 1;
            while (first < last) {
                int middle = (first + last + 1) / 2;
                if (ranges[middle].start <= prefix) first = middle; else last = middle - 1;
            }
            if (ranges[first].pattern >= 0) found = &patterns[ranges[first].pattern];
        } else {
            for (int i = 0; i < count; i++) {
                const struct pattern *pattern = &patterns[i];
                if (pattern->digits > shown) continue;
                uint64_t prefix = value / powers[shown - pattern->digits];
                if (prefix >= pattern->low && prefix <= pattern->high) { found = pattern; break; }
            }
        }
        if (!found || n > 31 || !(found->lengths & (1u << n))) continue;
        if (found->luhn) {
            int sum = 0;
            for (int i = shown - 1, odd = 0; i >= 0; i--, odd ^= 1) {
                int d = number[i];
                if (odd) { d *= 2; if (d > 9) d -= 9; }
                sum += d;
            }
            if (sum % 10 != 0) continue;
        }
        valid++;
    }
    fclose(input);
    printf("%ld records, %ld valid by number\n", records, valid);
    return 0;
}
