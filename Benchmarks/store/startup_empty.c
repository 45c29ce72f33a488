/* startup_empty.c: the floor, a C process that does nothing. */
int main(void)
{
    return 0;
}
