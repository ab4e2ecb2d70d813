"""Built-in clusters: numbers from the papers."""

import fairalloc as fa


def test_tvtsf_table3():
    c = fa.clusters.tvtsf_table3()
    # TV-TSF paper, Table 3: 5 x (2, 8), 5 x (4, 16), 10 x (8, 32), 10 x (12, 48), 10 x (16, 64),
    # 10 x (24, 96), 20 x (32, 128), 20 x (52, 192), 5 x (64, 256), 5 x (104, 384): 100 servers.
    assert c.n_servers == 100 and c.resource_names == ("cpu", "mem")
    assert c.capacities[0].tolist() == [2, 8] and c.capacities[-1].tolist() == [104, 384]
    # by hand: 10 + 20 + 80 + 120 + 160 + 240 + 640 + 1040 + 320 + 520 = 3150 cores;
    # 40 + 80 + 320 + 480 + 640 + 960 + 2560 + 3840 + 1280 + 1920 = 12120 GB
    assert c.totals.tolist() == [3150, 12120]
    types, counts = c.server_types()
    assert len(types) == 10
    assert c.server_names[0] == "2c8g-0" and c.server_names[-1] == "104c384g-4"


def test_small_clusters():
    assert fa.clusters.drf_example().capacities.tolist() == [[9, 18]]
    assert fa.clusters.pool(3).capacities.tolist() == [[1, 1, 1]]
