import AutoCancel
