/* Runs a fuzz target over files named on the command line (a committed corpus), so the
 * corpus is a regression suite under `meson test` with any compiler, without libFuzzer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "cannot open %s\n", argv[i]);
            return 1;
        }
        uint8_t *data = NULL;
        size_t size = 0, cap = 0;
        int c;
        while ((c = fgetc(f)) != EOF) {
            if (size == cap) {
                cap = cap ? cap * 2 : 256;
                uint8_t *grown = realloc(data, cap);
                if (!grown) {
                    free(data);
                    fclose(f);
                    return 1;
                }
                data = grown;
            }
            data[size++] = (uint8_t)c;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(data, size);
        free(data);
    }
    printf("replayed %d inputs\n", argc - 1);
    return 0;
}
