try:
    from ._entry import run
except KeyboardInterrupt:  # Ctrl-C while the program is imported, before its own handler: as after it
    import sys

    sys.stderr.write("trecgain: interrupted\n")
    raise SystemExit(130) from None

if __name__ == "__main__":  # not when a spawned process (a Dask worker) imports it as __mp_main__
    run()
