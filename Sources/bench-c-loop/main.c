// bench-c-loop: the baseline `make bench` compares `cardline check` with. A plain C loop over
// the same records file: for each line, the number's digits (spaces and dashes skipped), the
// network by a linear prefix-table scan (longest pattern first), the length and the Luhn
// check. Prints how many records were valid by number. Usage: bench-c-loop TABLE FILE, where
// TABLE holds one pattern a line: "low high digits network-index allowed-lengths-bitmask luhn".
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pattern { uint64_t low, high; int digits, network; uint32_t lengths; int luhn; };

static const uint64_t powers[20] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
    1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
    100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
    1000000000000000000ULL, 10000000000000000000ULL };

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: bench-c-loop TABLE FILE\n"); return 2; }
    FILE *table = fopen(argv[1], "r");
    if (!table) { perror(argv[1]); return 2; }
    struct pattern patterns[4096];
    int count = 0;
    unsigned long long low, high; int digits, network, luhn; unsigned lengths;
    while (count < 4096 && fscanf(table, "%llu %llu %d %d %u %d", &low, &high, &digits, &network, &lengths, &luhn) == 6) {
        patterns[count++] = (struct pattern){ low, high, digits, network, lengths, luhn };
    }
    fclose(table);
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
        for (int i = 0; i < count; i++) {
            const struct pattern *pattern = &patterns[i];
            if (pattern->digits > shown) continue;
            uint64_t prefix = value / powers[shown - pattern->digits];
            if (prefix >= pattern->low && prefix <= pattern->high) { found = pattern; break; }
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
