#!/usr/bin/python3
# Writes the md and FsOpBench reports' published figures as result sets
# (version 2 result.json, one repeat per variant, command "import"), typed
# in from ../../../shared/seeds. Run: profiles/published/transcribe.py profiles/published
import json, sys
def met(name, unit, better, value): return {"name": name, "unit": unit, "better": better, "value": value}
def wl(workload, spec, metrics, latency=None, extra=None):
    return {"workload": workload, "spec": spec, "flags": [], "metrics": metrics, "latency": latency or [], "extra": extra or {}}
def rset(host, devices_note, variants, source):
    return {"format": "stackbench-result", "version": 2, "tool_version": "published",
            "created": "", "command": "import", "host": host, "profile": None, "target": None,
            "devices": [], "tools": {}, "source": source,
            "variants": [{"name": n, "params": {"published": "yes"}, "repeats": [{"index": 0, "started": "", "workloads": w}]} for n, w in variants]}

# md report (Andras Korn, linux-raid, 2011-02-14)
def md_variant(seeks, r16, w16, r512, w512, build):
    ws = [wl("seq", "seq", [met("block_write", "KB/s", "higher", 110*1024), met("rewrite", "KB/s", "higher", 60*1024),
                            met("block_read", "KB/s", "higher", 167.5*1024), met("seeks", "seeks/s", "higher", seeks)],
             extra={"published_note": "block write ~110MB/s, rewrite ~60MB/s, block read ~160-175MB/s in every variant (midpoint shown)"}),
          wl("rand", "rand:16k", [met("read_mbs", "MB/s", "higher", r16), met("write_mbs", "MB/s", "higher", w16)],
             extra={"published_note": "iozone random read/write, 16k records, figures given as ~N MB/s"}),
          wl("rand", "rand:512k", [met("read_mbs", "MB/s", "higher", r512), met("write_mbs", "MB/s", "higher", w512)],
             extra={"published_note": "iozone random read/write, 512k records"})]
    if build is not None:
        ws.append(wl("kbuild", "kbuild", [met("build_wall", "s", "higher" if False else "lower", build),
                                          met("build_user", "s", "lower", 5450), met("build_sys", "s", "lower", 570)],
                     extra={"published_note": "linux 2.6.37 allyesconfig; user ~5450 s and system 570 s were the same in every variant measured"}))
    return ws
md = rset({"kernel": "2.6.38-rc2", "hostname": "published", "cpu": "", "note": "64GB Corsair SSD + two 7200rpm SATA disks, partition 2 of each; xfs"},
          None,
          [("2011: SSD alone", md_variant(7791, 46, 44, 130, 140, 887)),
           ("2011: RAID1, no write-mostly", md_variant(487.4, 3.7, 3.7, 58, 69, None)),
           ("2011: write-mostly, write-behind=0", md_variant(1843, 48, 3.7, 126, 69, 935)),
           ("2011: write-mostly, write-behind=16383", md_variant(2087, 43, 3.7, 126, 69, 936))],
          "Andras Korn, linux-raid, 2011-02-14, 'write-behind has no measurable effect?'")
json.dump(md, open(sys.argv[1] + "/md-raid1-ssd-2hdd-partitions.result.json", "w"), indent=1)

# FsOpBench (Tobi Oetiker, linux-btrfs, 2009)
def lat(phase, op, cnt, mn, mx, mean, sd):
    return {"op": f"{phase}: {op}", "count": cnt, "min_ms": mn, "mean_ms": mean, "stdev_ms": sd, "max_ms": mx,
            "p50_ms": None, "p90_ms": None, "p99_ms": None, "p999_ms": None}
def fsop(p1, p3, p33):
    P1, P3, P33 = "1 reader", "3 readers", "3 readers + 3 writers"
    L = []
    for ph, rows in ((P1, p1["lat"]), (P3, p3["lat"]), (P33, p33["lat"])):
        for op, vals in rows: L.append(lat(ph, op, *vals))
    m = [met("p1_read_rate_data_mbs", "MB/s", "higher", p1["rd"]), met("p1_read_rate_all_mbs", "MB/s", "higher", p1["ra"]),
         met("pR_read_rate_data_mbs", "MB/s", "higher", p3["rd"]), met("pR_read_rate_all_mbs", "MB/s", "higher", p3["ra"]),
         met("pRW_read_rate_data_mbs", "MB/s", "higher", p33["rd"]), met("pRW_read_rate_all_mbs", "MB/s", "higher", p33["ra"]),
         met("pRW_write_rate_data_mbs", "MB/s", "higher", p33["wd"]), met("pRW_write_rate_all_mbs", "MB/s", "higher", p33["wa"])]
    return [wl("mixed", "mixed:3r3w,time=30s", m, L,
               extra={"published_note": "FsOpBench: A read dir, B lstat file, C open file, D rd 1st byte, F write open (our create), G wr 1st byte, H write close, I mkdir"})]
R = lambda a, b, c, d: [("read dir", a), ("lstat", b), ("open", c), ("read first byte", d)]
W = lambda f, g, h, i: [("create", f), ("write first byte", g), ("close", h), ("mkdir", i)]
single = fsop({"lat": R((56400, .001, 96.106, .053, .973), (52652, .006, 34.721, .057, .680), (41411, .014, .277, .017, .003), (41412, .019, 51.501, .327, 1.774)), "rd": 164.741, "ra": 44.940},
              {"lat": R((21322, .001, 72.704, .073, 1.544), (19881, .006, 103.878, .145, 2.055), (15558, .014, .109, .018, .003), (15558, .020, 2528.137, 1.312, 21.358)), "rd": 106.851, "ra": 15.778},
              {"lat": W((15428, .057, 898.478, .390, 13.349), (15428, .006, 15.889, .009, .147), (15428, .016, 533.088, .222, 9.099), (1350, .031, 77.956, .127, 2.218))
                      + R((3382, .001, 1586.615, .831, 29.901), (3158, .007, 427.770, .390, 9.328), (2489, .014, 2.644, .020, .071), (2489, .021, 2033.881, 8.327, 68.468)),
               "rd": 11.927, "ra": 2.169, "wd": 30.738, "wa": 23.177})
raid6 = fsop({"lat": R((78845, .001, 29.713, .027, .421), (73600, .006, 21.639, .038, .273), (57862, .013, .100, .017, .003), (57861, .014, 70.214, .209, .919)), "rd": 185.464, "ra": 63.842},
             {"lat": R((41222, .001, 169.195, .056, 1.113), (38447, .006, 79.977, .064, .746), (30122, .013, .042, .018, .003), (30122, .014, 597.264, .535, 6.646)), "rd": 124.144, "ra": 31.197},
             {"lat": W((107, .063, 70.593, .760, 6.784), (107, .006, .014, .007, .002), (107, .017, 1784.192, 20.830, 176.474), (9, .049, 9.184, 1.079, 2.865))
                     + R((1215, .001, 2661.328, 4.008, 81.513), (1144, .007, 377.476, 1.827, 18.844), (928, .014, 1.596, .021, .056), (928, .015, 1936.262, 25.187, 123.755)),
              "rd": 9.199, "ra": .792, "wd": .200, "wa": .199})
fs = rset({"kernel": "2.6.31", "hostname": "published", "note": "btrfs, cfq"}, None,
          [("2009: single SATA disk", single), ("2009: Areca RAID6 (7 disks), LVM", raid6)],
          "Tobi Oetiker, linux-btrfs, 2009, FsOpBench: 3 readers and 3 writers")
json.dump(fs, open(sys.argv[1] + "/fsopbench-disk-vs-lvm-raid6.result.json", "w"), indent=1)
