import mkdocs_gen_files
with mkdocs_gen_files.open("claims.md","w") as f: f.write("# Claims\n")
