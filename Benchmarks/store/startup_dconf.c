/* startup_dconf.c: a new process's first read of a 1,000-key database with dconf's C client. */
#include <dconf.h>

int main(void)
{
    DConfClient *client = dconf_client_new();
    GVariant *v = dconf_client_read(client, "/bench/key0500");
    int missing = v == NULL;
    if (v != NULL)
        g_variant_unref(v);
    g_object_unref(client);
    return missing;
}
