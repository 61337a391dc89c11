from ._entry import run

if __name__ == "__main__":  # not when a spawned process (a Dask worker) imports it as __mp_main__
    run()
