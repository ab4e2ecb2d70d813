import mkdocs_gen_files
with mkdocs_gen_files.open("notebooks/SUMMARY.md","w") as f: f.write("* [x](x.md)\n")
with mkdocs_gen_files.open("notebooks/x.md","w") as f: f.write("# x\n")
