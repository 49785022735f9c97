module github.com/wfrun/wfrun

go 1.26
